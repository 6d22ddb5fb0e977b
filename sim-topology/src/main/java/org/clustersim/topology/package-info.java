/**
 * The physical cluster, without any notion of time: accelerators, NVSwitches, NICs and switches
 * as {@link org.clustersim.topology.Vertex vertices}, one-directional {@link org.clustersim.topology.Link links}
 * with bandwidth and latency, the cluster specifications with their published figures
 * (switched NVSwitch servers, DGX SuperPOD fabrics, fat trees, TPU tori joined by DCN), the
 * routers that choose a flow's links, the health of each link during a run, and the
 * collective-library constants of each machine.
 *
 * <p>Depends on JGraphT only; every other module depends on it, and it on none of them.
 */
package org.clustersim.topology;
