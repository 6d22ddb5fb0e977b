/**
 * Calibrating a device profile from measurements: GEMM, attention and memory tables and
 * nccl-tests output read with located errors, the fits, and the profile written with only the
 * measured entries replaced.
 *
 * <p>Depends on sim-core's input package and sim-strategies' device profiles.
 */
package org.clustersim.study.calibration;
