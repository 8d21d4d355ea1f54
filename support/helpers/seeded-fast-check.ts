import fc from "fast-check";

/**
 * Every property test generates the same cases on every run, so a red run is the code's
 * doing and replays as it was; `FC_SEED=<n>` explores other cases on purpose.
 */
fc.configureGlobal({ ...fc.readConfigureGlobal(), seed: Number(process.env.FC_SEED ?? 36) });
