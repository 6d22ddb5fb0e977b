package org.clustersim.core.metrics;

/**
 * How one device spent the step, measured from the timeline.
 *
 * @param device         device index
 * @param name           device name
 * @param computeBusyNs  time its compute stream ran tasks
 * @param computeIdleNs  time its compute stream stood idle within the step (the bubble)
 * @param bubbleFraction idle time divided by the step time
 */
public record DeviceUsage(int device, String name, long computeBusyNs, long computeIdleNs, double bubbleFraction) {
}
