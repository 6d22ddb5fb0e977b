/**
 * Scenario files: every field declared once ({@code ScenarioFields}: name, type, default, the JSON
 * Schema's source), the reader that turns a YAML or JSON file into a typed {@code Scenario} with
 * every error located (file, line, field, what was expected), the TPU sections, and faults
 * resolved against a topology.
 *
 * <p>Depends on sim-core's input package, sim-strategies (the layout builder and its rules) and
 * sim-topology; every study and the command line read scenarios through it.
 */
package org.clustersim.study.scenario;
