package org.clustersim.spark;

import org.apache.spark.SparkConf;
import org.apache.spark.api.java.JavaSparkContext;

import org.clustersim.study.engine.TaskEngine;
import org.clustersim.study.engine.TaskEngineProvider;

/**
 * {@code --engine spark}: starts a Spark context for the command. {@code --master} wins; otherwise
 * the master spark-submit set ({@code spark.master}); otherwise {@code local[*]}, all cores of this
 * machine. In local mode the web UI stays off (nothing to look at for seconds, and tests must not
 * bind ports); Spark's console progress bar is always off, the command draws its own. The master is
 * checked first ({@link SparkMaster}), and a context that fails to start is one line of bad input,
 * not Spark's stack trace.
 */
public final class SparkEngineProvider implements TaskEngineProvider {
    @Override
    public String name() {
        return "spark";
    }

    @Override
    public void check(String master) {
        // before any Spark class loads: making a SparkConf already logs warnings about this host
        new SparkMaster(master != null ? master : System.getProperty("spark.master", "local[*]")).check();
    }

    @Override
    public TaskEngine open(String master, String app) {
        check(master);
        SparkConf conf = new SparkConf().setAppName(app);
        if (master != null) {
            conf.setMaster(master);
        } else if (!conf.contains("spark.master")) {
            conf.setMaster("local[*]");
        }
        conf.set("spark.ui.showConsoleProgress", "false");
        if (conf.get("spark.master").startsWith("local")) {
            conf.set("spark.ui.enabled", "false");
            conf.setIfMissing("spark.driver.host", "127.0.0.1");
            conf.setIfMissing("spark.driver.bindAddress", "127.0.0.1");
        }
        try {
            return new SparkEngine(new JavaSparkContext(conf));
        } catch (Exception e) { // Spark throws its checked SparkException undeclared
            Throwable root = e;
            while (root.getCause() != null && root.getCause() != root) {
                root = root.getCause();
            }
            String why = root.getMessage() == null ? root.getClass().getSimpleName() : root.getMessage();
            throw new org.clustersim.core.input.InputException("--master " + conf.get("spark.master")
                    + ": Spark could not start: " + why.lines().findFirst().orElse("").strip());
        }
    }
}
