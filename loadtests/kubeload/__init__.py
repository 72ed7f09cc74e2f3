"""Locust building blocks for fakeapi load profiles (imported by the locustfiles beside this
package, which Locust puts on ``sys.path``). Importing this package imports Locust, which
monkey-patches the process for gevent: never import it from a process that runs asyncio."""
