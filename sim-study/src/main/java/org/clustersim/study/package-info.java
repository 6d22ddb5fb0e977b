/**
 * The study layer's core: one step run ({@link org.clustersim.study.SimulatedStep}: a scenario's
 * step built with its step sequence, its faults and interference, simulated) and one definition
 * of every figure reported of a step ({@link org.clustersim.study.StepFigures}), used by
 * {@code run}, {@code whatif}, {@code plan}, {@code goodput}, the report and the validation tests.
 *
 * <p>Depends on {@code study.scenario}, sim-strategies, sim-core and sim-topology; never on the
 * command line (sim-cli), picocli or printing.
 */
package org.clustersim.study;
