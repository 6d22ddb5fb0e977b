/**
 * Shared clusters: several jobs placed on one cluster and simulated together on one timeline and
 * one flow network ({@link org.clustersim.study.shared.SharedRun}), each also alone on its
 * placement for its contention slowdown. Depends on {@code study} and {@code study.scenario};
 * never on the command line.
 */
package org.clustersim.study.shared;
