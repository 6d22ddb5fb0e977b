/**
 * Benchmarks that print figures (JMH and plain timed commands): the kernel's event rate, a
 * data-parallel all-reduce, one command repeated in one JVM, and training steps simulated one
 * after another in one JVM (a search's steady per-step cost). Figures are recorded in
 * docs/benchmarks.md with the command that produced them; no test asserts a time.
 *
 * <p>May depend on any module; nothing depends on it.
 */
package org.clustersim.bench;
