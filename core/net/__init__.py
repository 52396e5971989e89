"""The network layer, by concern: :mod:`.wire` (the values every layer shares: responses, request
options, the call's deadline; a leaf), :mod:`.request` (a service's configuration and a prepared
request), :mod:`.pacing` (request slots and pacers), :mod:`.shared_pacer` (one pacer across
replicas, in Redis), :mod:`.session` (the shared aiohttp session), :mod:`.http` (the paced,
retrying client of a declared service), :mod:`.batching` (concurrent record requests merged),
:mod:`.webfetch` (the open-web client) and :mod:`.clients` (one client per declared service).
The record-level cache those clients consult lives in :mod:`medlit.core.cache`.

Nothing is imported here: each module is loaded when first used (aiohttp only with a session).
"""
