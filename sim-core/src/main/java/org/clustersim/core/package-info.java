/**
 * The entry point that runs one task graph on one topology ({@link org.clustersim.core.Simulation}),
 * composing a simulation kernel, a network model and the engine.
 *
 * <p>May depend on every sub-package of sim-core and on sim-topology; the sub-packages never
 * depend on it.
 */
package org.clustersim.core;
