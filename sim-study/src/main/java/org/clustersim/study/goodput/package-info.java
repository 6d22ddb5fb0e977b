/**
 * The goodput study: a scenario's simulated step combined with failure processes over a long
 * run, as seeded replications on a task engine, with an optional sweep of checkpoint
 * intervals. It computes only; {@code GoodputCommand} parses the flags, prints and writes the
 * result.
 *
 * <p>Depends on the study core, {@code study.scenario}, {@code study.engine}, {@code study.whatif}
 * and sim-core's reliability package.
 */
package org.clustersim.study.goodput;
