// The /v1 API as a client of the replicas sees it: each call goes to a replica that is up, and is tried
// again (on another replica, after a pause) when the connection fails or the answer is a 5xx, until it
// gets a final answer or its patience runs out.
import type { Replica } from "./replicas.ts";

export interface ApiAnswer {
  status: number;
  body: any;
  attempts: number;
}

export class ServiceApi {
  /** Answers by status code, every attempt counted. */
  readonly statuses: Record<string, number> = {};
  /** 5xx answers other than 502/503 (GitHub or the service unavailable): `path status`, each time. */
  readonly serverErrors: string[] = [];

  constructor(
    private readonly replicas: readonly Replica[],
    private readonly token: string,
    private readonly random: () => number,
  ) {}

  async post(path: string, body: unknown, patienceMs = 30_000): Promise<ApiAnswer> {
    const deadline = Date.now() + patienceMs;
    for (let attempts = 1; ; attempts++) {
      const up = this.replicas.filter((replica) => replica.up);
      const replica = up[Math.floor(this.random() * up.length)];
      let answer: ApiAnswer | undefined;
      if (replica) {
        try {
          const response = await fetch(`${replica.url}/v1/${path}`, {
            method: "POST",
            headers: { "content-type": "application/json", "x-api-token": this.token },
            body: JSON.stringify(body),
            signal: AbortSignal.timeout(Math.max(1, deadline - Date.now())),
          });
          const text = await response.text();
          answer = { status: response.status, body: text === "" ? null : JSON.parse(text), attempts };
          this.statuses[response.status] = (this.statuses[response.status] ?? 0) + 1;
          if (response.status >= 500 && response.status !== 502 && response.status !== 503) {
            this.serverErrors.push(`${path} ${response.status}`);
          }
        } catch {
          this.statuses.unanswered = (this.statuses.unanswered ?? 0) + 1;
        }
      }
      if (answer && answer.status < 500) return answer;
      if (Date.now() + 500 >= deadline) {
        return answer ?? { status: 0, body: null, attempts };
      }
      await new Promise((resolve) => setTimeout(resolve, 500));
    }
  }
}
