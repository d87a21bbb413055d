// The time a conversion's retrace limits count (retrace.ts): the wall clock, or the CPU time the
// process spent when that is less. A worker process runs one conversion at a time, so its CPU
// time is that conversion's work. On a quiet machine the process's threads (the tracer's, libvips',
// the garbage collector's) add up to more than the wall clock, which then counts, as before. On a
// busy machine the wall clock runs on while other processes have the cores: counted alone, it let
// the same image come back traced another way (a map's second trace, which wins by 0.05, was not
// started beside other work). Its CPU time does not grow with the load, so the same retraces start.

export interface WorkClock {
  /** Milliseconds of work since the clock started. */
  elapsedMs(): number;
}

/** Milliseconds of CPU time (user and system, every thread) the process has spent. */
export function processCpuMs(): number {
  const { user, system } = process.cpuUsage();
  return (user + system) / 1000;
}

/** A clock started now; `wallMs` and `cpuMs` are the two clocks it reads (tests pass their own). */
export function startWorkClock(wallMs: () => number = () => performance.now(), cpuMs: () => number = processCpuMs): WorkClock {
  const wallStart = wallMs();
  const cpuStart = cpuMs();
  return { elapsedMs: () => Math.min(wallMs() - wallStart, cpuMs() - cpuStart) };
}
