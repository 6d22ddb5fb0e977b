/**
 * The job-engine interface the studies run their candidates and variants on: an embedded thread
 * pool, or a distributed engine (Spark) found by ServiceLoader, each returning results in input
 * order, with a progress interface of its own.
 *
 * <p>Depends on sim-core's input package only; the studies and sim-spark build on it.
 */
package org.clustersim.study.engine;
