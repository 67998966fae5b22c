/** Re-executes this process with the engine's V8 flags (package.json's sandbay.engineV8Flags), unless it has them. */
export function relaunchWithEngineV8Flags(): void;
