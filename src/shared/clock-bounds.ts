/**
 * How far a sandbox clock may be from real time, either way (SPEC §5.5, §12): 100 years. A clock
 * advance past it is refused, an imported file's clock and timestamps must keep within it, and the
 * database refuses to store an offset beyond it (migration 100). Every date within it is a valid
 * JavaScript Date and a valid PostgreSQL timestamp, whatever arithmetic the engine does on it.
 */
export const maxClockOffsetMs = 100 * 365.25 * 86_400_000;
