/**
 * The plan search: every parallel layout of a model on a cluster, screened by predicted memory
 * and a lower bound on the step, the promising ones simulated in waves, ranked with their
 * breakdowns and the Pareto front of throughput and memory headroom.
 *
 * <p>Depends on the study core, {@code study.scenario}, {@code study.engine} and sim-strategies.
 */
package org.clustersim.study.plan;
