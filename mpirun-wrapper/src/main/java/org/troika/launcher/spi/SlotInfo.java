package org.troika.launcher.spi;

/**
 * One rank's place in the job: the rank table row.
 *
 * @param host host name
 * @param rank global rank
 * @param localRank rank among the ranks on the same host
 * @param crossRank position of this host among the hosts that have a rank with the same local rank
 * @param size world size
 * @param localSize ranks on this host
 * @param crossSize hosts that have a rank with this local rank
 */
public record SlotInfo(String host, int rank, int localRank, int crossRank, int size, int localSize, int crossSize) {}
