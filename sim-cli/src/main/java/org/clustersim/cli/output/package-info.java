/**
 * The shapes a run's figures are written in: the summary (text, JSON, CSV), the parallel groups
 * and all-to-all groups, link traffic, and the atomic transaction that writes a command's files.
 *
 * <p>Depends on the study layer for the figures; it measures nothing itself.
 */
package org.clustersim.cli.output;
