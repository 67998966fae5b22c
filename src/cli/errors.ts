/** An error the CLI reports as one line (no stack) before exiting non-zero. */
export class CliError extends Error {}
