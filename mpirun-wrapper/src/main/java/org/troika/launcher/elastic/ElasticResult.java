package org.troika.launcher.elastic;

/**
 * How an elastic job ended.
 *
 * @param exitCode the job's exit code: 0, or the first failing rank's code, or 1 for driver-side failures
 * @param message one line for the user
 * @param generations how many generations were launched
 * @param resets how many times a generation was followed by another
 */
public record ElasticResult(int exitCode, String message, int generations, int resets) {
    public boolean ok() {
        return exitCode == 0;
    }
}
