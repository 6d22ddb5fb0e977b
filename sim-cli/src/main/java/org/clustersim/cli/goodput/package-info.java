/**
 * The goodput study: a scenario's simulated step combined with failure processes over a long
 * run, as seeded replications on a task engine, with an optional sweep of checkpoint
 * intervals. It computes only; {@code GoodputCommand} parses the flags, prints and writes the
 * result. It imports sim-topology, sim-core, sim-strategies, {@code cli.scenario},
 * {@code cli.engine}, {@code cli.whatif} and {@code cli.study}, never the commands, picocli or
 * the output and report packages.
 */
package org.clustersim.cli.goodput;
