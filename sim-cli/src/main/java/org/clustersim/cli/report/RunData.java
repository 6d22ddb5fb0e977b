package org.clustersim.cli.report;

import java.util.List;

import org.clustersim.cli.output.RunSummary;
import org.clustersim.study.scenario.Scenario;
import org.clustersim.core.Simulation;
import org.clustersim.core.engine.Counters;
import org.clustersim.strategies.training.TrainingStep;

/**
 * One simulated run and what was measured of it: everything a report's figures are drawn
 * from. The timeline's counters must hold the memory tracks ({@link
 * org.clustersim.cli.output.MemoryTracks}) and, for the link heat map, the link throughput
 * tracks (the run simulated with link counters on).
 *
 * @param scenario the scenario
 * @param step     its training step
 * @param run      the finished simulation
 * @param summary  the measured figures
 * @param series   every counter track's samples, sorted once ({@link Counters#allSeries()})
 */
public record RunData(Scenario scenario, TrainingStep step, Simulation.Result run, RunSummary summary,
                      List<Counters.Series> series) {
    public RunData {
        series = List.copyOf(series);
    }

    /** Sorts the run's counters into series. */
    public static RunData of(Scenario scenario, TrainingStep step, Simulation.Result run, RunSummary summary) {
        return new RunData(scenario, step, run, summary, run.timeline().counters().allSeries());
    }

    /** The samples of the counter track named {@code name}, or null when there is none. */
    public Counters.Series track(String name) {
        Counters c = run.timeline().counters();
        for (Counters.Series s : series) {
            if (c.name(s.track()).equals(name)) {
                return s;
            }
        }
        return null;
    }

    /** The pipeline ranks shown in per-rank figures: all of them, or an even sample of {@code max}. */
    public int[] shownRanks(int max) {
        int pp = step.pp();
        int n = Math.min(pp, max);
        int[] out = new int[n];
        for (int i = 0; i < n; i++) {
            out[i] = n == 1 ? 0 : (int) Math.round(i * (pp - 1) / (double) (n - 1));
        }
        return out;
    }

    /** The GPU standing for pipeline rank {@code p}: TP rank 0, CP rank 0, data-parallel replica 0. */
    public int rankDevice(int p) {
        return step.device(0, 0, p, 0);
    }
}
