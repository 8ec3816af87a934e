// The queue pages' own rules on top of the shared stylesheet: state colours and the train of a run.
export const queueStyle = `
.queue-running { background: #1a7f37; } .queue-paused { background: #9a6700; }
.queue-draining, .queue-switching_modes { background: #59636e; }
.pr-state { font-weight: 600; } .pr-testing, .pr-pending_failure { color: #9a6700; }
.pr-merged, .pr-tests_passed { color: #1a7f37; } .pr-failed { color: #cf222e; } .pr-cancelled { color: #59636e; }
.train { display: flex; flex-wrap: wrap; gap: 0.25rem; list-style: none; padding: 0; margin: 0.3rem 0; }
.car { border: 1px solid #d1d9e0; border-radius: 0.3rem; padding: 0 0.4rem; font-family: ui-monospace, monospace; }
.car-target { background: #f6f8fa; } .car-ahead { background: #ddf4ff; } .car-batch { background: #fff8c5; }
.car-this { background: #0969da; color: #fff; font-weight: 600; }
.checks { margin: 0; padding-left: 1rem; }
.check-success { color: #1a7f37; } .check-failure, .check-error, .check-timed_out { color: #cf222e; }
tr:target { outline: 2px solid #0969da; }
.charts { display: grid; grid-template-columns: repeat(auto-fit, minmax(20rem, 1fr)); gap: 1rem; }
.chart { margin: 0; } .chart figcaption { font-weight: 600; } .chart svg { width: 100%; height: auto; }
.chart .bars { fill: #0969da; } .chart .baseline { stroke: #d1d9e0; }
.chart .axis { font-size: 10px; fill: #59636e; text-anchor: end; } .chart .tick { font-size: 10px; fill: #59636e; }
.controls { display: flex; gap: 0.3rem; flex-wrap: wrap; margin: 0.3rem 0; }
.controls form { margin: 0; } .controls button { font-size: 0.85em; }
`;
