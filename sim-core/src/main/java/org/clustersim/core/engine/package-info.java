/**
 * The task graph and the engine that runs it: devices, streams, tasks with their
 * {@link org.clustersim.core.engine.Work} (a compute duration or communication phases of flows),
 * dependencies and stream queues; the {@link org.clustersim.core.engine.Engine} that starts a task when it
 * heads every stream it occupies and its dependencies are done, the interference of
 * communication kernels with compute, stragglers, and the {@link org.clustersim.core.engine.Timeline}
 * every figure is measured from.
 *
 * <p>Depends on {@code core.kernel} for time; the network model plugs in through
 * {@link org.clustersim.core.engine.Network}. It knows nothing of models, layouts or schedules.
 */
package org.clustersim.core.engine;
