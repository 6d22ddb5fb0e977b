/**
 * Failure rates of a cluster's parts and what they cost a long training run (restarts, lost
 * work, checkpoints): the inputs of the goodput study.
 *
 * <p>Depends on nothing else in the project.
 */
package org.clustersim.core.reliability;
