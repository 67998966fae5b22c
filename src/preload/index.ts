import { contextBridge } from 'electron';

contextBridge.exposeInMainWorld('sandbay', { apiBase: '', adminKey: '' });
