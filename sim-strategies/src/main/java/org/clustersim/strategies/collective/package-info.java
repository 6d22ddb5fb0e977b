/**
 * Collective algorithms (ring, double binary tree, halving-doubling, hierarchical, NVLS, PXN,
 * direct and node-limited all-to-all, torus rings) that turn one collective over a group of
 * devices into phases of point-to-point flows, and the rules that pick one.
 *
 * <p>Depends on sim-core's engine and sim-topology; the training step builds on it.
 */
package org.clustersim.strategies.collective;
