/**
 * The Apache Spark job engine for plan searches and sweeps: each candidate a Spark task. Found by
 * ServiceLoader when its jar is on the class path, so the command-line jar carries no Spark.
 *
 * <p>Depends on the job-engine interface; nothing depends on it.
 */
package org.clustersim.spark;
