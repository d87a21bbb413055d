// A stand-in worker for the pool tests that dies before it is ready, as a worker would
// if its dependencies were missing.

process.exit(71);
