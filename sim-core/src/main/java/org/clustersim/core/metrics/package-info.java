/**
 * Figures measured from a simulated timeline: per-device busy and idle time, the windows of
 * each simulated step, and the breakdown of communication into hidden and exposed time.
 *
 * <p>Depends on {@code core.engine} only. Nothing here is a closed-form formula: every figure
 * comes from the timeline's intervals.
 */
package org.clustersim.core.metrics;
