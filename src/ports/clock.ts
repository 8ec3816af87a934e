/** The time now, in epoch milliseconds: the use cases read it here, so a test can set it. */
export type Clock = () => number;
