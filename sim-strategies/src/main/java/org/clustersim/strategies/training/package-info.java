/**
 * One training step of a transformer under tensor, context, pipeline, data and expert
 * parallelism: the device mesh, the per-dimension parts (tensor-parallel collectives, context
 * exchange, expert all-to-all, pipeline sends, gradient reduction and ZeRO sharding, optimizer
 * step) composed into one task graph, and the memory each device needs.
 *
 * <p>Depends on every other package of sim-strategies, on sim-core's engine and on sim-topology.
 */
package org.clustersim.strategies.training;
