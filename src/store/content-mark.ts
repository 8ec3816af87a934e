// What this process may remember of the database between requests. A read every API request makes (its token, the
// queue it names and that queue's version) costs more than the rest of an answer served from memory, so it is
// remembered while the database's content is unchanged. On SQLite the process knows when that is: its one
// connection sees every statement it runs that writes, and `PRAGMA data_version` tells whether another connection
// (`switchyard token revoke`, a second process) committed since. On PostgreSQL replicas write without telling this
// process, so there is no mark and every such read goes to the database.
import type BetterSqlite3 from "better-sqlite3";

/** A number that changes whenever the database's content may have changed; the same number means the same content. */
export type ContentMark = () => number;

const marks = new WeakMap<object, ContentMark>();

/**
 * Watches the SQLite connection `sqlite`: returns its content mark and `wrote`, which the statements this process
 * runs that write must call (statement-cache.ts does, for every statement that is not read-only).
 */
export function watchSqliteContent(sqlite: BetterSqlite3.Database): { mark: ContentMark; wrote: () => void } {
  const dataVersion = sqlite.prepare("PRAGMA data_version").pluck();
  let seenDataVersion = dataVersion.get() as number;
  let generation = 0;
  // Another connection's commits are looked for once per turn of the event loop, not by every request of the turn
  // (the pragma is a statement): a commit seen one turn later is as if the requests had come a moment earlier.
  let lookedThisTurn = false;
  const nextTurn = () => {
    lookedThisTurn = false;
  };
  return {
    mark: () => {
      if (!lookedThisTurn) {
        lookedThisTurn = true;
        setImmediate(nextTurn);
        const current = dataVersion.get() as number;
        if (current !== seenDataVersion) {
          seenDataVersion = current;
          generation++;
        }
      }
      return generation;
    },
    wrote: () => {
      generation++;
    },
  };
}

/** Records `mark` as the content mark of the database `db` (a Kysely instance) is. */
export function markContent(db: object, mark: ContentMark): void {
  marks.set(db, mark);
}

/**
 * Values read from a database, each kept until its content may have changed: a value read before a change is never
 * answered after it. Each database has its own; beyond `capacity` keys one starts afresh. The values are shared by
 * every reader: never to be mutated.
 */
export class ContentMemo<V> {
  readonly #byDatabase = new WeakMap<object, { mark: number; values: Map<string, V> }>();

  constructor(private readonly capacity: number) {}

  /** The value of `key` read by `read` on `db`, or the one read before if the content has not changed since. */
  async get(db: object, key: string, read: () => Promise<V>): Promise<V> {
    const mark = marks.get(db)?.();
    if (mark === undefined) return read();
    let memo = this.#byDatabase.get(db);
    if (memo?.mark !== mark) {
      memo = { mark, values: new Map() };
      this.#byDatabase.set(db, memo);
    }
    if (memo.values.has(key)) return memo.values.get(key) as V;
    // The mark was taken before the read: if anything wrote meanwhile, the next get finds another mark and drops it.
    const value = await read();
    if (memo.values.size >= this.capacity) memo.values.clear();
    memo.values.set(key, value);
    return value;
  }
}
