/**
 * Discrete-event simulation kernels behind one interface ({@link org.clustersim.core.kernel.SimKernel}):
 * DSOL's, and a heap of distinct instants for the largest runs. Both run simultaneous actions in
 * the order they were scheduled, so a run's outputs do not depend on the kernel.
 *
 * <p>Depends on DSOL only; depended on by the engine and the network models.
 */
package org.clustersim.core.kernel;
