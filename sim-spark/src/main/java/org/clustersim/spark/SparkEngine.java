package org.clustersim.spark;

import java.io.Serializable;
import java.util.ArrayList;
import java.util.List;

import org.apache.spark.SparkException;
import org.apache.spark.api.java.JavaSparkContext;
import org.apache.spark.api.java.function.Function;
import org.apache.spark.scheduler.SparkListener;
import org.apache.spark.scheduler.SparkListenerTaskEnd;

import org.clustersim.study.engine.Progress;
import org.clustersim.study.engine.TaskEngine;

/**
 * Apache Spark as a {@link TaskEngine}: the inputs become an RDD with one partition per input, so
 * each candidate (or sweep variant, or replication) is one Spark task that the scheduler places on
 * any executor; {@code collect} returns partitions in order, so the results come back in input
 * order however the tasks were spread and whenever they finished. A listener on the driver counts
 * finished tasks for the progress bar. Jobs and their inputs travel by Java serialization.
 */
public final class SparkEngine implements TaskEngine {
    private final JavaSparkContext context;
    private final String master;

    SparkEngine(JavaSparkContext context) {
        this.context = context;
        this.master = context.master();
    }

    @Override
    public <I extends Serializable, O extends Serializable> List<O> map(List<I> inputs, Job<I, O> job,
                                                                        Progress progress) {
        if (inputs.isEmpty()) {
            return List.of();
        }
        SparkListener counter = new SparkListener() {
            @Override
            public void onTaskEnd(SparkListenerTaskEnd end) {
                if (end.taskInfo() != null && end.taskInfo().successful()) {
                    progress.done();
                }
            }
        };
        context.sc().addSparkListener(counter);
        try {
            return new ArrayList<>(context.parallelize(inputs, inputs.size()).map(new Apply<>(job)).collect());
        } catch (Exception e) { // Spark throws its checked SparkException undeclared
            if (e instanceof SparkException) {
                Throwable root = e;
                while (root.getCause() != null && root.getCause() != root) {
                    root = root.getCause();
                }
                throw new IllegalStateException("a Spark task failed: " + root.getMessage(), e);
            }
            if (e instanceof RuntimeException r) {
                throw r;
            }
            throw new IllegalStateException(e);
        } finally {
            context.sc().removeSparkListener(counter);
        }
    }

    @Override
    public int slots() {
        return Math.max(1, context.sc().defaultParallelism());
    }

    @Override
    public String describe() {
        return "spark " + master + " (" + context.sc().defaultParallelism() + " task slots)";
    }

    @Override
    public void close() {
        context.stop();
    }

    /** The job as Spark's function type. */
    private static final class Apply<I, O> implements Function<I, O> {
        private static final long serialVersionUID = 1L;
        private final Job<I, O> job;

        Apply(Job<I, O> job) {
            this.job = job;
        }

        @Override
        public O call(I input) {
            return job.apply(input);
        }
    }
}
