/**
 * Preloaded (`node --import`) into every process a chaos run starts: exits when the run's
 * process is gone (killed with SIGKILL, so its exit hooks never ran), instead of living
 * on as an orphan that still holds locks and ports.
 */
const parent = process.ppid;

setInterval(() => {
  // Re-parented to init or a subreaper: the run that started us is dead.
  if (process.ppid !== parent) process.kill(process.pid, "SIGKILL");
}, 500).unref();
