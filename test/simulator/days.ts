// The two reference days for measuring queue policies: a stressed queue and a typical one.
import type { SimulationModel } from "../../src/simulator/model.ts";

/** 30 PRs/h, 30-minute CI ±10%, 10% broken, 5% flaky, over 24 hours. */
export const stressDay: SimulationModel = {
  arrivalsPerHour: 30,
  ciMinutes: 30,
  jitter: 0.1,
  broken: 0.1,
  flaky: 0.05,
  hours: 24,
  conflicts: 0,
  ciDurations: null,
  impactsAll: 0.1,
  headCiFailed: 0,
  knownFlaky: 0,
};

/** The stress day's CI at 10 PRs/h. */
export const typicalDay: SimulationModel = { ...stressDay, arrivalsPerHour: 10 };
