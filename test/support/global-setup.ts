import { dropTestSchemas } from "./database.ts";

/** vitest global setup: the returned function runs once after every test file finished. */
export default function setup() {
  return async () => {
    const url = process.env.TEST_DATABASE_URL;
    if (url) await dropTestSchemas(url);
  };
}
