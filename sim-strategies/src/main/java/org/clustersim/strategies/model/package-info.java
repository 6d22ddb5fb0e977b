/**
 * The transformer being trained: layers, hidden and head sizes, attention shape and variants,
 * experts. Pure data with the parameter and FLOP counts that follow from it.
 *
 * <p>Depends on nothing else in the project.
 */
package org.clustersim.strategies.model;
