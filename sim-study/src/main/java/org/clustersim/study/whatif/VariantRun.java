package org.clustersim.study.whatif;

import java.nio.file.Path;
import java.util.concurrent.atomic.AtomicReference;

import org.clustersim.study.engine.TaskEngine;
import org.clustersim.study.scenario.ScenarioReader;

/**
 * One sweep variant as a task of a {@link TaskEngine}. In the JVM that made it, it runs on the
 * study it was given; shipped to another JVM (a Spark executor) the study does not travel: the
 * scenario's file name and text do, and the study is rebuilt from them once per JVM and kept for
 * the next variants of the same sweep.
 */
final class VariantRun implements TaskEngine.Job<WhatIfStudy.Variant, Outcome> {
    private static final long serialVersionUID = 1L;
    /** The last study rebuilt in this JVM, keyed by file name and text. */
    private static final AtomicReference<Object[]> REBUILT = new AtomicReference<>();

    private final String file;
    private final String text;
    private final transient WhatIfStudy study;

    VariantRun(WhatIfStudy study) {
        this.study = study;
        this.file = study.scenario().source().toString();
        this.text = study.text();
    }

    @Override
    public Outcome apply(WhatIfStudy.Variant v) {
        return study().run(v.label(), v.linkClass(), v.faults(), null);
    }

    private WhatIfStudy study() {
        if (study != null) {
            return study;
        }
        if (text == null) {
            throw new IllegalStateException("this study was not made from a file's text and cannot run in another JVM");
        }
        String key = file + '\n' + text;
        Object[] cached = REBUILT.get();
        if (cached != null && cached[0].equals(key)) {
            return (WhatIfStudy) cached[1];
        }
        synchronized (REBUILT) {
            cached = REBUILT.get();
            if (cached != null && cached[0].equals(key)) {
                return (WhatIfStudy) cached[1];
            }
            WhatIfStudy rebuilt = new WhatIfStudy(new ScenarioReader().readText(Path.of(file), text), text);
            REBUILT.set(new Object[] {key, rebuilt});
            return rebuilt;
        }
    }
}
