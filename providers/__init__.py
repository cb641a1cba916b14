"""Judge-model adapters. Each module is imported only when a juror names its provider."""
