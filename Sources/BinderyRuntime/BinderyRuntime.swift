// Generated modules import only BinderyRuntime; the JSON and HTTP types they use come with it.
@_exported import BinderyJSON
@_exported import HTTPTypes
