/**
 * Network models that carry a communication phase's flows over the topology's links: the
 * flow model (fluid flows sharing link capacity max-min fairly, re-rated incrementally) and the
 * analytical one (each flow at its route's bottleneck, no contention), the routes they memoise
 * and the per-link usage they record.
 *
 * <p>Depends on {@code core.engine} (the {@link org.clustersim.core.engine.Network} seam),
 * {@code core.kernel} and sim-topology.
 */
package org.clustersim.core.network;
