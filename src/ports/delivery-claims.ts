// The webhook deliveries handled, so that each is handled at most once however often GitHub delivers it and on
// whichever replica. src/store/deliveries.ts implements it.

export type DeliveryClaim = "claimed" | "handled" | "in_progress";

export interface DeliveryClaims {
  /**
   * Claims a delivery for handling: "handled" when a handler already finished it, "in_progress" while another
   * handler holds it. A claim older than `staleMs` belonged to a process that died while handling: it is taken over.
   */
  claimDelivery(key: string, event: string, now: number, staleMs: number): Promise<DeliveryClaim>;
  /** The claimed delivery's handler finished: every copy of it from now on changes nothing. */
  completeDelivery(key: string, now: number): Promise<void>;
  /** The handler failed: a copy may be handled again. */
  forgetDelivery(key: string): Promise<void>;
}
