package org.clustersim.cli.output;

import org.clustersim.core.engine.Counters;
import org.clustersim.core.engine.Timeline;
import org.clustersim.strategies.training.MemoryModel;
import org.clustersim.strategies.training.TrainingStep;

/** Adds a memory counter track (GB) per simulated GPU to a finished run's counters, for the trace. */
public final class MemoryTracks {
    private MemoryTracks() {
    }

    public static void add(Timeline timeline, TrainingStep step, TrainingStep.Built built) {
        MemoryModel model = new MemoryModel(step);
        Counters counters = timeline.counters();
        for (int d = 0; d < step.replicas(); d++) {
            for (int p = 0; p < step.pp(); p++) {
                long[][] live = built.pipelines().get(d).activationBytes(timeline, p, model::keptActivationBytes,
                        model::layerTrackedBytes);
                double fixed = model.states(p).total();
                for (int g = 0; g < step.tp() * step.cp(); g++) {
                    // every GPU of the stage's TP x CP group holds the same
                    int device = step.device(g % step.tp(), g / step.tp(), p, d);
                    int track = counters.track("memory " + timeline.graph().devices().get(device).name(), "GB");
                    counters.add(track, 0, fixed / 1e9);
                    long previous = 0;
                    for (int i = 0; i < live[0].length; i++) {
                        counters.add(track, live[0][i], (live[1][i] - previous) / 1e9);
                        previous = live[1][i];
                    }
                }
            }
        }
    }
}
