/** The IPC channel the preload reads `{ apiBase, adminKey }` from, once, at load. */
export const configChannel = 'sandbay:config';
