// A stand-in worker for the pool tests: says it is ready, then dies on its first task,
// as a worker would on a native crash in the tracer.

process.on('message', () => process.exit(70));
process.send?.({ type: 'ready' });
