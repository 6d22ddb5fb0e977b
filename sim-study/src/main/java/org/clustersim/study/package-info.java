/**
 * The study layer's core: one step run ({@link org.clustersim.study.SimulatedStep}) and one
 * definition of every figure reported of a step ({@link org.clustersim.study.StepFigures}),
 * used by {@code run}, {@code whatif}, {@code plan}, {@code goodput}, the report and the
 * validation tests. It may depend on sim-topology, sim-core, sim-strategies and
 * {@code cli.scenario} only (no command line, printing or rendering), so that it can move into a
 * module of its own between sim-strategies and sim-cli.
 */
package org.clustersim.study;
