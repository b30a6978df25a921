// Generated modules import only BinderyRuntime; the JSON types they use come with it.
@_exported import BinderyJSON
