package org.clustersim.study.goodput;

/**
 * What the goodput study is asked, already checked by the command.
 *
 * @param days            wall-clock length of the run
 * @param interval        how the checkpoint interval is chosen
 * @param checkpointCostS time training stops to save a checkpoint
 * @param restartCostS    detection, rescheduling and reload after a failure
 * @param mtbfGpuH        per-GPU MTBF, hours
 * @param mtbfHostH       per-server MTBF, hours
 * @param mtbfLinkH       per scale-out cable MTBF, hours
 * @param mtbfSwitchH     per scale-out switch MTBF, hours
 * @param replications    seeded replications per interval
 * @param seed            the first seed; replication i uses seed + i
 */
public record GoodputInput(double days, CheckpointInterval interval, double checkpointCostS, double restartCostS,
                           double mtbfGpuH, double mtbfHostH, double mtbfLinkH, double mtbfSwitchH,
                           int replications, long seed) {
}
