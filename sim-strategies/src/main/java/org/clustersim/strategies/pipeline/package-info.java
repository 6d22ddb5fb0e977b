/**
 * Pipeline schedules (GPipe, 1F1B, interleaved 1F1B, zero-bubble, DualPipe) as per-rank programs
 * of forward, backward and weight-gradient actions, the stage placement, and the tasks they
 * become. Closed-form bubble ratios live here only as oracles for tests and studies.
 *
 * <p>Depends on sim-core and sim-topology; the training step builds on it.
 */
package org.clustersim.strategies.pipeline;
