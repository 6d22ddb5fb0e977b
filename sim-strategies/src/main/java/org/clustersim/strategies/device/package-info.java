/**
 * Device profiles: a GPU's or TPU's measured rates (GEMM surface, attention curves, memory
 * bandwidth, launch overheads, communication kernels) read from bundled or user files.
 *
 * <p>Depends on {@code core.input} for reading and on sim-topology; the cost model builds on it.
 */
package org.clustersim.strategies.device;
