/**
 * What each kernel of a transformer layer costs on a device: GEMMs on the device's measured
 * surface, attention, element-wise and memory-bound kernels, precision and FP8 recipes,
 * activation recomputation.
 *
 * <p>Depends on the device profiles, the model and sim-topology.
 */
package org.clustersim.strategies.cost;
