/**
 * The what-if study: a scenario's step run again under faults (links, cables, switches, NICs, slow
 * GPUs), alone or as a sweep ranked by the step time each variant costs.
 *
 * <p>Depends on the study core, {@code study.scenario} and {@code study.engine}.
 */
package org.clustersim.study.whatif;
