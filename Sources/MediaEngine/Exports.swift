// The vocabulary types the public API uses, re-exported one by one so a client that imports
// `MediaEngine` alone can name them (and nothing else of the modules they live in).
@_exported import struct MediaCodecs.VideoFrame
@_exported import enum MediaCodecs.PixelFormat
@_exported import enum Simulcast.VideoQuality
@_exported import enum Simulcast.MaxLayer
@_exported import enum Simulcast.VideoContent
@_exported import struct Simulcast.VideoSize
@_exported import struct Simulcast.LayerTarget
@_exported import enum Simulcast.LayerChangeReason
@_exported import enum Simulcast.ConnectionQualityLevel
@_exported import enum Simulcast.AdaptiveSubscriptionPauseReason
@_exported import enum Simulcast.AdaptiveSubscriptionResumeReason
@_exported import struct MediaCodecs.AudioFrame
@_exported import struct Simulcast.ActiveSpeaker
@_exported import enum SRTP.SRTPSuite
@_exported import enum SFrame.SFrameCipherSuite
@_exported public import struct SessionCore.ICEServer
@_exported public import enum SessionCore.ICETransportPolicy
