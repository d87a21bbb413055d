// The node's one connection to Redis (REDIS_URL), shared by the limits and the web sessions:
// how it connects, and how a failed command reads (503, retry shortly) wherever it is used.
import { Redis } from 'ioredis';
import { DomainError } from '../errors.ts';

export type { Redis };

/** Connects, or throws an error naming REDIS_URL: the service does not start without its Redis. */
export async function connectRedis(url: string): Promise<Redis> {
  // Fail fast while disconnected instead of queueing: a request gets 503, not a hang.
  const redis = new Redis(url, { lazyConnect: true, maxRetriesPerRequest: 1, enableOfflineQueue: false });
  redis.on('error', () => {
    // Reported per command as 503 (redisCommand); ioredis reconnects by itself.
  });
  try {
    await redis.connect();
  } catch (error) {
    redis.disconnect();
    throw new Error(`REDIS_URL: cannot connect to Redis: ${(error as Error).message}`, { cause: error });
  }
  return redis;
}

/** Runs Redis commands; any failure is a 503 saying which store is away (`the limits store`). */
export async function redisCommand<T>(store: string, run: () => Promise<T>): Promise<T> {
  try {
    return await run();
  } catch {
    throw new DomainError('unavailable', `${store} is unavailable; retry shortly`, { retryAfterSeconds: 5 });
  }
}
