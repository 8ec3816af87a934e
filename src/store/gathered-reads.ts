// Reads by key that arrive while one is on its way to the database go together in the next: on PostgreSQL each
// read is a round trip, and with deliveries for many queues at once the round trips (socket writes and wake-ups on
// both sides) cost more than the reads.

/**
 * One read of `readMany` for the keys asked while the previous one ran; the first of a quiet spell goes at once.
 * Each key's read is sent after it was asked, so it sees whatever was committed before: as fresh as a read of its
 * own. A failed read fails the callers it gathered.
 */
export function gatheredReads<Value>(
  readMany: (keys: readonly string[]) => Promise<ReadonlyMap<string, Value>>,
): (key: string) => Promise<Value | undefined> {
  let waiting: {
    key: string;
    resolve: (value: Value | undefined) => void;
    reject: (error: unknown) => void;
  }[] = [];
  let reading = false;
  const drain = async () => {
    reading = true;
    while (waiting.length > 0) {
      const gathered = waiting;
      waiting = [];
      try {
        const found = await readMany([...new Set(gathered.map(({ key }) => key))]);
        for (const { key, resolve } of gathered) resolve(found.get(key));
      } catch (error) {
        for (const { reject } of gathered) reject(error);
      }
    }
    reading = false;
  };
  return (key) =>
    new Promise((resolve, reject) => {
      waiting.push({ key, resolve, reject });
      if (!reading) void drain();
    });
}
