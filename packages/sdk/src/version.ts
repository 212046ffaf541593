/** This SDK's version, reported in every client heartbeat (at most 32 characters). */
export const SDK_VERSION = "0.1.0";
